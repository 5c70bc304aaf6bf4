"""Poker (58 Pa. Code chapter 553): the two decks, their inspection, shuffle and cut."""
