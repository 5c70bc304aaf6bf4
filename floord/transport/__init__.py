"""Byte transports to a device: the base protocol, serial/socket, USB."""
