"""What every game engine shares: table state, rounds, rulings, snapshots."""
