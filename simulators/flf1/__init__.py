"""The FLF/1 devices' twins: framing, the card device, each family."""
