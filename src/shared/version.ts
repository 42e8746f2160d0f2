export const ACTION_VERSION = '1.0.0'
