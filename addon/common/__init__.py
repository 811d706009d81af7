"""What every operator and builder shares: Blender version compatibility, units and axes,
progress, all-or-nothing imports, error messages, names, the file record and pose-space math."""
