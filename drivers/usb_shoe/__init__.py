"""A card-reading shoe on USB as a HID keyboard wedge."""
