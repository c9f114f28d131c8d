"""In-process MCP servers: the JSON-RPC core (``server``), ``@tool`` definitions (``tools``,
``annotations``), the ``mcp_servers`` config shapes (``config``), JSON Schema generation and
validation (``schema``, ``schema_validation``), and serving an ``mcp`` package server
(``bridge``, the one module here that does I/O).
"""
