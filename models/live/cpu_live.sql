{{ tsdedup.live_measurement(ref('cpu')) }}
