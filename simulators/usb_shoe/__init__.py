"""A card-reading USB shoe, simulated as a pyusb backend."""
