"""tsdedup: Python side of the project (parser, UDFs, the `tsdedup` command)."""
