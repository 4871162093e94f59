"""The modules behind Scripts/abuse, one concern each (docs/BENCHMARKING.md lists them)."""
