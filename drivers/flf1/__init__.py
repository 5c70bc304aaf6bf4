"""floord's FLF/1 framed protocol: the framing once, and each device family."""
