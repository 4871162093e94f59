"""The modules behind Scripts/bench, one concern each (docs/BENCHMARKING.md lists them)."""
