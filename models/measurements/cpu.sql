{{ tsdedup.measurement('cpu') }}
