"""Chunked encoding with the patched x264 on a Dask cluster (README.md)."""
