"""Typed structured output: ``output_format=`` given a class, the run gives back an instance.

A dataclass, a TypedDict or a pydantic v2 model becomes a JSON Schema the CLI accepts
(``class_schema``, rewritten to the CLI's dialect by ``cli_dialect``); the JSON value the
CLI returns becomes an instance (``decode``), or a ``StructuredOutputError`` naming the JSON
path of the first mismatch (``outcome``). dataclasses-json and pydantic are imported on
first use only (``dataclasses_json_adapter``, ``pydantic_adapter``).
"""
