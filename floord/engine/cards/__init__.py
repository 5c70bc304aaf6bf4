"""Card bookkeeping shared by the card games: cards, hands, decks, shufflers."""
