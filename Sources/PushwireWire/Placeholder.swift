// Placeholder until the generated wrappers land.
