"""Core: units and frames, seeded dice streams, the exception tree."""
