#include "ui/panels/pg_dialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "io/sources/sql_source.h"
#include "ui/model/computations.h"

namespace dpx::ui {

QString pgPasswordKey(const ExplorerState& s) {
    return QStringLiteral("postgresql/passwords/%1@%2:%3/%4")
        .arg(s.data.postgres.user, s.data.postgres.host)
        .arg(s.data.postgres.port)
        .arg(s.data.postgres.database);
}

QString rememberedPgPassword(const ExplorerState& s) {
    return QSettings().value(pgPasswordKey(s)).toString();
}

void storePgPassword(const ExplorerState& s, bool remember) {
    QSettings settings;
    if (remember && !s.data.postgres.password.isEmpty()) {
        settings.setValue(pgPasswordKey(s), s.data.postgres.password);
    } else {
        settings.remove(pgPasswordKey(s));
    }
}

PgConnectionDialog::PgConnectionDialog(const ExplorerState& s, QWidget* parent)
    : QDialog(parent), watcher_(new QFutureWatcher<QString>(this)) {
    setWindowTitle(tr("Connect to PostgreSQL"));
    host_ = new QLineEdit(s.data.postgres.host);
    host_->setToolTip(
        tr("Host name or address of the server, or the directory of its unix "
           "socket (e.g. /run/postgresql)."));
    port_ = new QSpinBox;
    port_->setRange(1, 65535);
    port_->setValue(s.data.postgres.port);
    port_->setToolTip(tr("TCP port of the server (PostgreSQL's default is 5432)."));
    database_ = new QLineEdit(s.data.postgres.database);
    database_->setToolTip(tr("The database to read from."));
    user_ = new QLineEdit(s.data.postgres.user);
    user_->setToolTip(tr("The database user. Read access to the table is enough."));
    password_ = new QLineEdit(s.data.postgres.password.isEmpty() ? rememberedPgPassword(s)
                                                                 : s.data.postgres.password);
    password_->setEchoMode(QLineEdit::Password);
    password_->setToolTip(
        tr("Never saved in a session file. Leave empty to let PostgreSQL use "
           "PGPASSWORD or ~/.pgpass."));
    remember_ = new QCheckBox(tr("Remember password (stored in plain text in the settings file)"));
    remember_->setObjectName(QStringLiteral("rememberPassword"));
    remember_->setChecked(!rememberedPgPassword(s).isEmpty());
    remember_->setToolTip(
        tr("Keeps the password in DP Explorer's settings file, unencrypted, "
           "for this user, host, port and database. Untick to remove it."));
    connectTimeout_ = new QSpinBox;
    connectTimeout_->setRange(1, 3600);
    connectTimeout_->setSuffix(tr(" s"));
    connectTimeout_->setValue(s.data.postgres.connectTimeout);
    connectTimeout_->setToolTip(tr("How long to wait for the server to answer when connecting."));
    statementTimeout_ = new QSpinBox;
    statementTimeout_->setRange(0, 2147483647);
    statementTimeout_->setSuffix(tr(" ms"));
    statementTimeout_->setSpecialValueText(tr("none"));
    statementTimeout_->setValue(s.data.postgres.statementTimeout);
    statementTimeout_->setToolTip(tr("Longest time a query may run on the server (0: no limit)."));
    test_ = new QPushButton(tr("Test connection"));
    test_->setToolTip(tr("Connects and lists the tables, in the background."));
    result_ = new QLabel;
    result_->setObjectName(QStringLiteral("testResult"));
    result_->setWordWrap(true);
    result_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* form = new QFormLayout;
    form->addRow(tr("Host"), host_);
    form->addRow(tr("Port"), port_);
    form->addRow(tr("Database"), database_);
    form->addRow(tr("User"), user_);
    form->addRow(tr("Password"), password_);
    form->addRow(QString(), remember_);
    form->addRow(tr("Connect timeout"), connectTimeout_);
    form->addRow(tr("Statement timeout"), statementTimeout_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Connect"));
    buttons->addButton(test_, QDialogButtonBox::ActionRole);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(result_);
    layout->addWidget(buttons);
    setMinimumWidth(460);

    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        if (host_->text().trimmed().isEmpty() || database_->text().trimmed().isEmpty()) {
            result_->setText(tr("Give a host and a database."));
            return;
        }
        accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(test_, &QPushButton::clicked, this, &PgConnectionDialog::testConnection);
    connect(watcher_, &QFutureWatcher<QString>::finished, this, [this] {
        const QString r = watcher_->result();
        const bool ok = r.startsWith(QLatin1Char('+'));
        result_->setText(r.mid(1));
        result_->setStyleSheet(ok ? QString() : QStringLiteral("color: #d62728;"));
        test_->setEnabled(true);
        adjustSize();
        Q_EMIT testFinished(ok, r.mid(1));
    });
}

PgConnectionDialog::~PgConnectionDialog() {
    // A test still running finishes on its own (bounded by the connect timeout); its result
    // goes nowhere.
    watcher_->disconnect();
}

void PgConnectionDialog::applyTo(ExplorerState& s) const {
    s.data.source = SourceKind::Postgres;
    s.data.postgres.host = host_->text().trimmed();
    s.data.postgres.port = port_->value();
    s.data.postgres.database = database_->text().trimmed();
    s.data.postgres.user = user_->text().trimmed();
    s.data.postgres.password = password_->text();
    s.data.postgres.connectTimeout = connectTimeout_->value();
    s.data.postgres.statementTimeout = statementTimeout_->value();
}

bool PgConnectionDialog::rememberPassword() const {
    return remember_->isChecked();
}

void PgConnectionDialog::testConnection() {
    ExplorerState s;
    applyTo(s);
    const data::SqlConnectionSpec spec = sqlSpecOf(s);
    test_->setEnabled(false);
    result_->setStyleSheet(QString());
    result_->setText(tr("Connecting to %1…").arg(QString::fromStdString(spec.describe())));
    // On a worker thread: sqlListTables opens (and closes) its own connection there.
    watcher_->setFuture(QtConcurrent::run([spec]() -> QString {
        auto tables = data::sqlListTables(spec);
        if (!tables) {
            return QStringLiteral("-") + QString::fromStdString(tables.error().message);
        }
        return QStringLiteral("+") + QObject::tr("Connected to the %1: %n table(s).", nullptr,
                                                 static_cast<int>(tables->size()))
                                         .arg(QString::fromStdString(spec.describe()));
    }));
}

}  // namespace dpx::ui
