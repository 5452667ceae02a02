{{ tsdedup.measurement('weather') }}
