"""What ``castwise doctor`` diagnoses: a factory in a file or module, a transformers folder, or the
built-in example model that walks into every pitfall castwise fixes."""
