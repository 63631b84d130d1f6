"""mlhidden: reproduce 'Multi-label Classification using Labels as Hidden Nodes' and run its protocol."""

__version__ = "0.1.0"
