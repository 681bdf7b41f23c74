//! `git`, limited to read-only subcommands, with the global options and
//! subcommand options that run programs or touch files refused.
//!
//! Configuration that would make even read-only git run programs
//! (`core.fsmonitor`, diff drivers, filters...) is neutralized at run time by
//! [`crate::gitenv`]; this table only judges the argv.

use crate::class::CommandClass;
use crate::finding::Finding;
use crate::gitenv::compose_dirs;
use crate::options::{Opt, Stop, Table, Unknown, flag, optional, path, refuse, value, walk};
use crate::spec::{Ctx, Judge, Judged, Operands, Spec};

pub(crate) const GIT: Spec = Spec {
    names: &["git"],
    class: CommandClass::Read,
    table: GLOBAL,
    operands: Operands::Custom,
    judge: Judge::Custom(git),
    env: &[],
    allows: &[
        "git status",
        "git log -p -1 -- src/main.rs",
        "git show HEAD --stat",
        "git ls-files",
        "git ls-files -o --exclude-per-directory=.gitignore",
        "git branch -a",
        "git -C src log --oneline -5",
        "git diff HEAD~1 -- src",
        "git log --format=%h/%s --author=me",
        "git grep -n /etc/passwd",
        "git blame -L 1,5 src/main.rs",
        "git tag -l 'v1.*'",
        "git branch --list 'feat/*'",
        "git stash list",
        "git stash show -p stash@{0}",
        "git stash list --format=%gs",
        "git describe --tags --always",
        "git -C src -C .. log --oneline",
        "git -C src diff --no-index main.rs ../README.md",
        "git --version",
        "git remote -v",
        "git diff --text a b",
        "git log -c",
        "git var GIT_AUTHOR_IDENT",
        "git var GIT_DEFAULT_BRANCH",
    ],
    refuses: &[
        "git ls-files -o --exclude-per-directory=/etc/passwd",
        "git ls-files --exclude-per-directory=../../etc/passwd -o",
        "git -c core.pager=id log",
        "git -c CORE.FSMONITOR=id status",
        "git --config-env=core.pager=EVIL log",
        "git --exec-path=. x",
        "git --git-dir=/root/repo/.git log",
        "git --work-tree=/ status",
        "git -C / log",
        "git -C ../.. log",
        "git -p log",
        "git commit -m x",
        "git config core.fsmonitor id",
        "git push --force origin main",
        "git fetch origin '--upload-pack=sleep 30'",
        "git ls-remote '--upload-pack=id' foo",
        "git submodule foreach id",
        "git rebase --exec id HEAD~1",
        "git difftool --extcmd=id HEAD~1",
        "git bisect run ./payload.sh",
        "git archive --output=/tmp/foo HEAD",
        "git show --textconv HEAD",
        "git show --output=/tmp/pwned HEAD",
        "git log --outp=x",
        "git blame --output=.git/config README.md",
        "git diff --ext-diff",
        "git log --show-signature",
        "git grep -O x",
        "git grep --open-files-in-pager=vi x",
        "git diff --no-index /dev/null /etc/shadow",
        "git tag '--file=/etc/passwd' main",
        "git tag v2",
        "git branch -D main",
        "git branch newbranch",
        "git stash",
        "git stash -m list",
        "git stash -q list",
        "git stash -- list",
        "git stash --message=show",
        "git stash push",
        "git stash save x",
        "git stash pop",
        "git describe --dirty",
        "git describe --dirty=-x --tags",
        "git describe --broken",
        "git describe --dir",
        "git -C src diff --no-index main.rs ../../x",
        "git -C src -C .. -C .. log",
        "git reflog expire --all",
        "git log --help",
        "git help log",
        "git cat-file --textconv HEAD:a",
        "git log -O/etc/passwd",
        "git ls-files --recurse-submodules",
        "git diff --submodule=diff --ignore-submodules=none",
        "git status --ignore-submodules=none",
        "git var -l",
        "git var",
        "git var GIT_AUTHOR_IDENT -l",
        "git var --list",
        "git var core.pager",
        "git",
    ],
};

const GLOBAL: Table = Table {
    options: &[
        value("-C"),
        refuse(
            "-c",
            "sets configuration, which can run programs (core.pager, core.fsmonitor, aliases); leave configuration alone",
        ),
        refuse(
            "--config-env",
            "sets configuration, which can run programs; leave configuration alone",
        ),
        refuse(
            "--exec-path",
            "chooses where git finds its own programs; leave it out",
        ),
        refuse(
            "--git-dir",
            "points git at another repository; run git in the workspace's repository (git -C FOLDER for a subfolder)",
        ),
        refuse(
            "--work-tree",
            "points git at other files; run git in the workspace (git -C FOLDER for a subfolder)",
        ),
        refuse(
            "--bare",
            "treats the folder as a bare repository; run git in the workspace's repository",
        ),
        refuse("--super-prefix", "is internal to git"),
        refuse(
            "-p --paginate",
            "starts a pager, which can be any program; the output comes back to you without one",
        ),
        refuse(
            "-h --help",
            "opens the manual through a configurable viewer; use `git SUBCOMMAND -h` for a usage summary",
        ),
        flag("-P --no-pager"),
        value("--namespace"),
        value("--attr-source"),
        value("--list-cmds"),
        flag("--no-replace-objects"),
        flag("--no-lazy-fetch"),
        flag("--no-optional-locks"),
        flag("--no-advice"),
        flag("--literal-pathspecs"),
        flag("--glob-pathspecs"),
        flag("--noglob-pathspecs"),
        flag("--icase-pathspecs"),
        flag("--version"),
        flag("--html-path"),
        flag("--man-path"),
        flag("--info-path"),
    ],
    unknown: Unknown::Refuse("is not a git option the exec tool allows before the subcommand"),
};

const OUTPUT: Opt = refuse("--output", "writes to a file; the output comes back to you");
const EXT_DIFF: Opt = refuse(
    "--ext-diff",
    "runs an external diff program; use git's own diff",
);
const TEXTCONV: Opt = refuse(
    "--textconv",
    "runs text conversion programs; show the content as stored",
);
const SIGNATURE: Opt = refuse(
    "--show-signature",
    "runs the signature verification program; leave it out",
);
const SUBMODULES: Opt = refuse(
    "--recurse-submodules",
    "runs git in submodules, whose configuration is not checked; run git -C SUBMODULE separately",
);
const SUBMODULE_VIEW: Opt = refuse(
    "--submodule --ignore-submodules",
    "makes git look into submodules, whose configuration is not checked; run git -C SUBMODULE separately",
);
const HELP: Opt = refuse(
    "--help",
    "opens the manual through a configurable viewer; use -h for a usage summary",
);

/// log, show, diff and the other history and diff commands.
const HISTORY: Table = Table {
    options: &[
        OUTPUT,
        EXT_DIFF,
        TEXTCONV,
        SIGNATURE,
        SUBMODULES,
        SUBMODULE_VIEW,
        HELP,
        path("-O"),
        flag("-a --text"),
        value("-n --max-count"),
        value("--skip"),
        value("--since --after --until --before --since-as-filter"),
        value("--author --committer --grep --grep-reflog"),
        value("-S -G --find-object"),
        value("-L"),
        optional("--format --pretty"),
        value("--date --encoding"),
        optional("--expand-tabs --notes --decorate"),
        value("--decorate-refs --decorate-refs-exclude --exclude"),
        optional("--glob --branches --tags --remotes"),
        value("--min-parents --max-parents"),
        value("--diff-filter --diff-algorithm --anchored"),
        optional(
            "--stat --dirstat --dirstat-by-file -M -C -B --find-renames --find-copies --break-rewrites",
        ),
        value("--stat-width --stat-name-width --stat-graph-width --stat-count"),
        optional(
            "--relative -U --unified --word-diff --color --color-moved --color-words --abbrev",
        ),
        value("--src-prefix --dst-prefix --line-prefix --inter-hunk-context --word-diff-regex"),
        value("-I --ignore-matching-lines --ws-error-highlight --rotate-to --skip-to"),
        value("--output-indicator-new --output-indicator-old --output-indicator-context"),
    ],
    unknown: Unknown::Flag,
};

const BLAME: Table = Table {
    options: &[
        OUTPUT,
        TEXTCONV,
        HELP,
        path("--contents --ignore-revs-file -S"),
        value("-L --ignore-rev --date --encoding"),
        optional("-M -C --abbrev --color-lines --color-by-age"),
    ],
    unknown: Unknown::Flag,
};

const GREP: Table = Table {
    options: &[
        TEXTCONV,
        SUBMODULES,
        HELP,
        refuse(
            "-O --open-files-in-pager",
            "opens the matches in a program of your choice; read the output instead",
        ),
        value("-e"),
        path("-f"),
        value("-A --after-context -B --before-context -C --context"),
        value("-m --max-count --max-depth --threads"),
        optional("--color --column"),
    ],
    unknown: Unknown::Flag,
};

const LS_FILES: Table = Table {
    options: &[
        SUBMODULES,
        HELP,
        value("-x --exclude --with-tree --format"),
        // the ignore file read in each folder, which git opens as named
        path("-X --exclude-from --exclude-per-directory"),
        optional("--abbrev"),
    ],
    unknown: Unknown::Flag,
};

/// The other read-only commands: status, rev-parse, cat-file, describe...
const SIMPLE: Table = Table {
    options: &[
        TEXTCONV,
        SUBMODULES,
        SUBMODULE_VIEW,
        HELP,
        refuse(
            "--filters",
            "runs the repository's filter programs; show the content as stored",
        ),
        value(
            "--format --sort --count --points-at --source --path --match --exclude --default --prefix --git-path",
        ),
        optional(
            "-u --untracked-files --ignored --porcelain --column --abbrev --contains --merged --no-merged --no-contains --batch --batch-check --glob --short",
        ),
        refuse(
            "--dirty --broken",
            "makes git refresh and rewrite the index (git describe --dirty writes it even when \
             optional locks are off); see the changes with git status --short",
        ),
        path("--resolve-git-dir"),
    ],
    unknown: Unknown::Flag,
};

/// `git var -l` lists every configuration value (a credential a
/// repository or the environment holds among them): only named variables.
const VAR: Table = Table {
    options: &[
        HELP,
        refuse(
            "-l",
            "lists every configuration value; ask for one variable: git var GIT_AUTHOR_IDENT",
        ),
    ],
    unknown: Unknown::Refuse("is not allowed; ask for one variable: git var GIT_AUTHOR_IDENT"),
};

/// The variables `git var` may print: identities, the editor and pager
/// git would use (neutralized here), the default branch and file places.
const GIT_VARS: &[&str] = &[
    "GIT_AUTHOR_IDENT",
    "GIT_COMMITTER_IDENT",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_PAGER",
    "GIT_DEFAULT_BRANCH",
    "GIT_SHELL_PATH",
    "GIT_ATTR_SYSTEM",
    "GIT_ATTR_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_GLOBAL",
];

const CHANGES: &str = "creates, renames or deletes; the exec tool only lists";

const BRANCH: Table = Table {
    options: &[
        HELP,
        SUBMODULES,
        flag("-l --list"),
        flag(
            "-a --all -r --remotes -v --verbose --show-current -i --ignore-case --omit-empty --no-color --no-column --no-abbrev -q --quiet",
        ),
        optional("--color --column --abbrev"),
        value("--contains --no-contains --merged --no-merged --points-at --format --sort"),
        refuse(
            "-d -D --delete -m -M --move -c -C --copy -f --force -u --set-upstream-to --unset-upstream -t --track --no-track --edit-description --create-reflog",
            CHANGES,
        ),
    ],
    unknown: Unknown::Refuse(
        "is not a branch listing option; the exec tool only lists branches (-a, -r, -v, --list, --contains...)",
    ),
};

const TAG: Table = Table {
    options: &[
        HELP,
        flag("-l --list"),
        flag("-i --ignore-case --omit-empty --no-column"),
        optional("-n --color --column"),
        value("--contains --no-contains --merged --no-merged --points-at --sort --format"),
        refuse(
            "-a --annotate -s --sign -u --local-user -f --force -d --delete -v --verify -m --message -F --file -e --edit --cleanup --create-reflog",
            CHANGES,
        ),
    ],
    unknown: Unknown::Refuse(
        "is not a tag listing option; the exec tool only lists tags (-l, -n, --contains...)",
    ),
};

const REMOTE: Table = Table {
    options: &[HELP, flag("-v --verbose --push --all")],
    unknown: Unknown::Refuse(
        "is not allowed; the exec tool only lists remotes (git remote -v, git remote get-url NAME)",
    ),
};

/// How a subcommand's operands are judged.
#[derive(Debug, Clone, Copy)]
enum GitOperands {
    /// Revisions and paths: all confined (a revision name is harmless as a
    /// relative path).
    Revs,
    /// `git grep`: the first is the pattern unless `-e`/`-f`.
    Pattern,
    /// Operands are patterns, allowed only with `-l`/`--list`.
    ListOnly(&'static str),
    /// The first operand must be one of `allowed`, or absent if `bare_ok`.
    Verb {
        allowed: &'static [&'static str],
        bare_ok: bool,
    },
    /// The first operand must not be one of these verbs.
    NotVerb(&'static [&'static str]),
    /// `git stash`: the first argument, exactly as written, is the
    /// subcommand when it is one of `allowed`; git takes anything else
    /// (nothing, an option, `--`) as `git stash push`, which writes.
    Stash { allowed: &'static [&'static str] },
}

/// The read-only subcommands.
const SUBCOMMANDS: &[(&str, CommandClass, &Table, GitOperands)] = &[
    ("status", CommandClass::Read, &SIMPLE, GitOperands::Revs),
    ("log", CommandClass::Read, &HISTORY, GitOperands::Revs),
    ("show", CommandClass::Read, &HISTORY, GitOperands::Revs),
    ("diff", CommandClass::Read, &HISTORY, GitOperands::Revs),
    (
        "whatchanged",
        CommandClass::Read,
        &HISTORY,
        GitOperands::Revs,
    ),
    ("diff-tree", CommandClass::Read, &HISTORY, GitOperands::Revs),
    (
        "diff-files",
        CommandClass::Read,
        &HISTORY,
        GitOperands::Revs,
    ),
    (
        "diff-index",
        CommandClass::Read,
        &HISTORY,
        GitOperands::Revs,
    ),
    ("rev-list", CommandClass::Read, &HISTORY, GitOperands::Revs),
    ("shortlog", CommandClass::Read, &HISTORY, GitOperands::Revs),
    (
        "range-diff",
        CommandClass::Read,
        &HISTORY,
        GitOperands::Revs,
    ),
    ("cherry", CommandClass::Read, &HISTORY, GitOperands::Revs),
    (
        "show-branch",
        CommandClass::Read,
        &SIMPLE,
        GitOperands::Revs,
    ),
    ("blame", CommandClass::Read, &BLAME, GitOperands::Revs),
    ("annotate", CommandClass::Read, &BLAME, GitOperands::Revs),
    ("grep", CommandClass::Search, &GREP, GitOperands::Pattern),
    ("ls-files", CommandClass::List, &LS_FILES, GitOperands::Revs),
    ("ls-tree", CommandClass::List, &SIMPLE, GitOperands::Revs),
    ("cat-file", CommandClass::Read, &SIMPLE, GitOperands::Revs),
    ("rev-parse", CommandClass::Read, &SIMPLE, GitOperands::Revs),
    ("describe", CommandClass::Read, &SIMPLE, GitOperands::Revs),
    ("name-rev", CommandClass::Read, &SIMPLE, GitOperands::Revs),
    ("merge-base", CommandClass::Read, &SIMPLE, GitOperands::Revs),
    (
        "for-each-ref",
        CommandClass::List,
        &SIMPLE,
        GitOperands::Revs,
    ),
    ("show-ref", CommandClass::List, &SIMPLE, GitOperands::Revs),
    (
        "count-objects",
        CommandClass::Read,
        &SIMPLE,
        GitOperands::Revs,
    ),
    (
        "check-ignore",
        CommandClass::Read,
        &SIMPLE,
        GitOperands::Revs,
    ),
    ("check-attr", CommandClass::Read, &SIMPLE, GitOperands::Revs),
    ("version", CommandClass::Neutral, &SIMPLE, GitOperands::Revs),
    (
        "var",
        CommandClass::Read,
        &VAR,
        GitOperands::Verb {
            allowed: GIT_VARS,
            bare_ok: false,
        },
    ),
    (
        "branch",
        CommandClass::List,
        &BRANCH,
        GitOperands::ListOnly(
            "`git branch NAME` creates a branch; list branches with git branch -a, or git branch --list 'PATTERN'",
        ),
    ),
    (
        "tag",
        CommandClass::List,
        &TAG,
        GitOperands::ListOnly("`git tag NAME` creates a tag; list tags with git tag -l 'PATTERN'"),
    ),
    (
        "remote",
        CommandClass::List,
        &REMOTE,
        GitOperands::Verb {
            allowed: &["get-url"],
            bare_ok: true,
        },
    ),
    (
        "stash",
        CommandClass::Read,
        &HISTORY,
        GitOperands::Stash {
            allowed: &["list", "show"],
        },
    ),
    (
        "worktree",
        CommandClass::List,
        &SIMPLE,
        GitOperands::Verb {
            allowed: &["list"],
            bare_ok: false,
        },
    ),
    (
        "reflog",
        CommandClass::Read,
        &HISTORY,
        GitOperands::NotVerb(&["expire", "delete", "drop", "write"]),
    ),
];

fn subcommand_list() -> String {
    SUBCOMMANDS
        .iter()
        .map(|(name, ..)| *name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The `-C` folders of a git argv (without the program), in order, as git
/// reads its options before the subcommand; `None` when they cannot be
/// read (an option the table refuses).
pub(crate) fn git_global_dirs(args: &[String]) -> Option<Vec<String>> {
    let global = walk("git", &GLOBAL, args, Stop::FirstOperand).ok()?;
    Some(
        global
            .known("-C")
            .map(|dir| dir.unwrap_or_default().to_owned())
            .collect(),
    )
}

/// Where the subcommand of a git argv (without the program) is, as git
/// reads its options before it; `None` without one, or when they cannot be
/// read.
pub(crate) fn git_subcommand_at(args: &[String]) -> Option<usize> {
    let global = walk("git", &GLOBAL, args, Stop::FirstOperand).ok()?;
    (global.rest < args.len()).then_some(global.rest)
}

fn git(ctx: &Ctx<'_>, args: &[String]) -> Result<Judged, Finding> {
    let mut judged = judge_git(ctx, args)?;
    // `-C` is the base of every path that follows (operands, `--no-index`
    // files, option values, pathspecs): each is confined as git will open
    // it, from the folder the `-C` options entered.
    let dirs = judged.git_dirs.clone().unwrap_or_default();
    let base = compose_dirs(&dirs);
    let mut own = dirs.iter().filter(|d| !d.is_empty()).count();
    let mut paths = Vec::with_capacity(judged.paths.len());
    for value in judged.paths.drain(..) {
        if own > 0 {
            own -= 1;
            paths.push(value);
        } else if base.is_empty() || value.starts_with('/') {
            paths.push(value);
        } else {
            paths.push(format!("{}/{value}", base.trim_end_matches('/')));
        }
    }
    judged.paths = paths;
    Ok(judged)
}

fn judge_git(ctx: &Ctx<'_>, args: &[String]) -> Result<Judged, Finding> {
    let program = ctx.program;
    let global = walk(program, &GLOBAL, args, Stop::FirstOperand)?;
    let mut judged = Judged::new(CommandClass::Read);
    // `-C` folders are cumulative: confine each folder git will enter (an
    // empty one enters none).
    let mut dirs = Vec::new();
    for dir in global.known("-C") {
        let dir = dir.unwrap_or_default().to_owned();
        dirs.push(dir);
        if !dirs.last().is_some_and(String::is_empty) {
            judged.path(program, &compose_dirs(&dirs))?;
        }
    }
    judged.git_dirs = Some(dirs);
    let rest = &args[global.rest..];
    let Some((subcommand, sub_args)) = rest.split_first() else {
        let informative = [
            "--version",
            "--html-path",
            "--man-path",
            "--info-path",
            "--list-cmds",
        ];
        if informative.iter().any(|name| global.has(name)) {
            judged.class = CommandClass::Neutral;
            return Ok(judged);
        }
        return Err(Finding::operand(
            program,
            "",
            format!("give a read-only subcommand: {}", subcommand_list()),
        ));
    };
    let Some((_, class, table, operands)) =
        SUBCOMMANDS.iter().find(|(name, ..)| name == subcommand)
    else {
        return Err(Finding::operand(
            program,
            subcommand,
            format!(
                "`git {subcommand}` is not one of the read-only subcommands the exec tool runs ({}); changes to the repository go through tools made for them",
                subcommand_list()
            ),
        ));
    };
    judged.class = *class;
    if let GitOperands::Stash { allowed } = *operands {
        match sub_args.first() {
            Some(verb) if allowed.contains(&verb.as_str()) => {}
            Some(word) if !word.starts_with('-') => {
                return Err(Finding::operand(
                    program,
                    word,
                    format!(
                        "the exec tool runs `git stash` only as: git stash {}",
                        allowed.join(" | ")
                    ),
                ));
            }
            other => {
                return Err(Finding::operand(
                    program,
                    other.map(String::as_str).unwrap_or_default(),
                    format!(
                        "git reads `git stash{}` as `git stash push` (a subcommand must come \
                         first), which saves and reverts your changes; the exec tool runs \
                         `git stash` only as: git stash {}",
                        other.map(|w| format!(" {w}")).unwrap_or_default(),
                        allowed.join(" | ")
                    ),
                ));
            }
        }
    }
    let walked = walk(program, table, sub_args, Stop::End)?;
    judged.options(program, &walked)?;
    let mut ops = walked.operands();
    match *operands {
        GitOperands::Revs => {}
        GitOperands::Pattern => {
            if !walked.has("-e") && !walked.has("-f") {
                ops.next();
            }
        }
        GitOperands::ListOnly(why) => {
            let listing = walked.has("-l");
            if let Some(operand) = walked.operands().next().filter(|_| !listing) {
                return Err(Finding::operand(program, operand, why));
            }
        }
        GitOperands::NotVerb(verbs) => {
            if let Some(verb) = walked.operands().next().filter(|op| verbs.contains(op)) {
                return Err(Finding::operand(
                    program,
                    verb,
                    format!(
                        "`git {subcommand} {verb}` changes the repository; the exec tool only reads it"
                    ),
                ));
            }
        }
        GitOperands::Stash { .. } => {
            // The subcommand, checked above.
            ops.next();
        }
        GitOperands::Verb { allowed, bare_ok } => match ops.next() {
            Some(verb) if allowed.contains(&verb) => {}
            None if bare_ok => {}
            other => {
                let shown = other.unwrap_or_default();
                return Err(Finding::operand(
                    program,
                    shown,
                    format!(
                        "the exec tool runs `git {subcommand}` only as: git {subcommand} {}",
                        allowed.join(" | ")
                    ),
                ));
            }
        },
    }
    for operand in ops {
        judged.path(program, operand)?;
    }
    Ok(judged)
}
