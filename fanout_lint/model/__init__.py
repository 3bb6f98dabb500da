"""The model every loader produces and every rule reads: values, nodes, the graph."""
