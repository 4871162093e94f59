// Placeholder until the APNs gateway lands.
