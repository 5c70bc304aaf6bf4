"""Roulette (58 Pa. Code Chapter 529): the engine, layout and sensor."""
