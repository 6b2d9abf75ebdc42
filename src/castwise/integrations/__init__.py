"""Integrations with the frameworks users meet precision through (transformers, Lightning, FSDP2)."""
