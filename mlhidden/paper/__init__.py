"""The paper half of mlhidden: what checks and reports the reproduction of *Labels as Hidden Nodes*."""
