"""gpu-guide: YAML data → buying logic → a Chinese MkDocs site about renting GPUs."""

__version__ = "0.1.0"
