"""floord's device profiles: one versioned YAML file per device model.

A package (not a bare folder) so that a wheel, an sdist and an editable install all ship
the profiles and the USB shoe's udev rules as package data; `floord.profiles` finds
them with importlib.resources, wherever floord is installed.
"""
