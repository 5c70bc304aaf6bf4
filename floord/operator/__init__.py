"""Signed operator commands: their verification and the client that sends them."""
