"""Carnival poker games: rules and commands on the shared deck book."""
