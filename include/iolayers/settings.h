/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The settings: one table behind the module parameters (under
 * /sys/module/iolayers/parameters/) and the debugfs files that show them.
 */
#ifndef _IOLAYERS_SETTINGS_H
#define _IOLAYERS_SETTINGS_H

#include <linux/types.h>

/**
 * enum iolayers_setting_kind - How a setting's value is parsed and kept.
 * @IOLAYERS_SET_UINT: a decimal in [@lo, @hi], kept in an unsigned int
 * @IOLAYERS_SET_US: microseconds in [@lo, @hi], kept in a u64 as ns
 * @IOLAYERS_SET_BOOL: a boolean (kstrtobool()), kept in a bool
 * @IOLAYERS_SET_CUSTOM: its own set and show functions
 */
enum iolayers_setting_kind {
	IOLAYERS_SET_UINT,
	IOLAYERS_SET_US,
	IOLAYERS_SET_BOOL,
	IOLAYERS_SET_CUSTOM,
};

/**
 * struct iolayers_setting - One setting: a module parameter, and with
 *	@runtime also a read-only debugfs file.
 * @name: the parameter's and the file's name
 * @kind: how its value is parsed and kept
 * @var: where it is kept (all kinds but %IOLAYERS_SET_CUSTOM)
 * @lo: smallest value accepted (%IOLAYERS_SET_UINT, %IOLAYERS_SET_US)
 * @hi: largest value accepted
 * @set: %IOLAYERS_SET_CUSTOM: parse and apply a value (the text, without
 *	echo's newline); 0 or -EINVAL after a pr_err naming it
 * @show: %IOLAYERS_SET_CUSTOM: the value as text with a newline, as
 *	snprintf()
 * @free: %IOLAYERS_SET_CUSTOM, optional: let go of what the value holds
 *	(the kernel calls it once the module is gone, or its load failed)
 * @runtime: changeable while the module runs: its parameter is writable
 *	(0600) and a debugfs file (0400) shows it
 */
struct iolayers_setting {
	const char *name;
	enum iolayers_setting_kind kind;
	void *var;
	unsigned int lo;
	unsigned int hi;
	int (*set)(const char *val);
	int (*show)(char *buf, size_t size);
	void (*free)(void);
	bool runtime;
};

extern const struct iolayers_setting iolayers_settings[];
extern const unsigned int iolayers_nr_settings;

int iolayers_setting_set(const struct iolayers_setting *s, const char *val);
int iolayers_setting_show(const struct iolayers_setting *s, char *buf, size_t size);
void iolayers_settings_starting(void);
void iolayers_settings_live(bool live);

#endif /* _IOLAYERS_SETTINGS_H */
