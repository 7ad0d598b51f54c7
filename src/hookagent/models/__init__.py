"""Model drivers: the `Model` protocol and the resolution of `provider:model` names."""
