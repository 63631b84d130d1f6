"""The stored-run model."""
