"""Pai Gow (58 Pa. Code ch. 535): the shaker's dice and the starting position of the deal."""
