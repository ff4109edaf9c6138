"""specscope.audit"""
