"""Compiling a valid harness: validation, the stage graph, compiled artifacts, plans, stamp."""
