"""CPU references (the golden): numpy in, numpy out, written to read like the spec. One module per operator."""
