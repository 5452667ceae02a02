{{ tsdedup.measurement('h2o') }}
