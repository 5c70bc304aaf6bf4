"""Big Six wheel: the engine and its layout."""
