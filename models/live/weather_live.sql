{{ tsdedup.live_measurement(ref('weather')) }}
