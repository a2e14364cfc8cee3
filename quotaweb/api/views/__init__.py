"""API views, one module per part of the contract; each module also holds its routes."""
