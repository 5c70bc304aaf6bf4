"""War (58 Pa. Code chapter 567): six or more decks, a dealing shoe, the players' cut."""
