"""The performance model: timeline simulation, roofline and the `aqo perf` report."""
