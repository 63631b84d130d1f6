"""The study on top of the general tool: what reproducing *Labels as Hidden Nodes* needs beyond running methods."""
