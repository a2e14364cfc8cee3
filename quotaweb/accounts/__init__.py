"""Accounts and roles: who may read quotaweb and who may change the configuration."""
