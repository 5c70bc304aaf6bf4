"""The Cammegh SS2 roulette wheel's host protocol."""
