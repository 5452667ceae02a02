"""The code Spark's executors run: the line-protocol parsers, the chunk reader,
the table functions and the sort-key function. It is registered in the session
and, on a cluster, zipped and shipped to the executors; it imports nothing from
the ``tsdedup`` package (the command line), which a test holds."""
