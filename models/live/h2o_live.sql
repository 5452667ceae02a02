{{ tsdedup.live_measurement(ref('h2o')) }}
