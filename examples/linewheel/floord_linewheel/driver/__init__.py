"""The LW/1 host side: one driver module per device model (`wheel`)."""
