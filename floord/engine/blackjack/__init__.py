"""Blackjack and Spanish 21: rules, shoe, shuffler, play, settlement."""
