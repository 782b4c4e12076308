not a real graph
