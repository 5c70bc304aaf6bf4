"""Baccarat: rules, shoe, tableau, coups, settlement."""
