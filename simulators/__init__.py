"""Behavioural twins of each device, speaking its exact wire bytes. Never imports drivers."""
