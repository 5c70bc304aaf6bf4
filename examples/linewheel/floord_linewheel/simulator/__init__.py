"""The LW/1 device side: the devices' twins, which never import the driver."""
