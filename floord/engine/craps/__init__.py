"""Craps and Mini-Craps (ch. 537): the engine, its calls, throws, wagers, Fire Bets, odds."""
