"""The box's configuration: the models, the secrets, the cross-checks."""
