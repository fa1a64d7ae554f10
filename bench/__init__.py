"""anonratio.bench"""
