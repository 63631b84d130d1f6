"""Claims checked against stored runs: a claims file, its checker, and its outputs (docs/claims.md)."""
